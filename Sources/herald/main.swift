import HeraldFront

Front.main(arguments: CommandLine.arguments)
