import HeraldFront
#if canImport(Glibc)
import Glibc
#endif

// Herald's files are its user's alone; herald-full, run from here, inherits it (and sets it too).
umask(0o077)
Front.main(arguments: CommandLine.arguments)
