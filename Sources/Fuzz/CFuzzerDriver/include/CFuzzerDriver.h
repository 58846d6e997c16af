#ifndef HERALD_CFUZZERDRIVER_H
#define HERALD_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry points (compiler-rt installs no header for them; these are its documented
// signatures, https://llvm.org/docs/LibFuzzer.html). The fuzzer target defines the first in Swift
// with @_cdecl; the runtime linked by -sanitize=fuzzer defines the second.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
