#include "CFuzzerDriver.h"

// SwiftPM compiles an executable target's entry point as `<Target>_main` and links the program with
// `--defsym main=<Target>_main` (so tests can link executables). A fuzzer has no entry point of
// its own, so the renamed symbol would be missing: each is defined here and runs libFuzzer's
// driver on the target's LLVMFuzzerTestOneInput. Every fuzzer links all four; each uses its own.
#define HERALD_FUZZER_MAIN(target) \
    int target##_main(int argc, char **argv) { \
        return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput); \
    }

HERALD_FUZZER_MAIN(FuzzIntakeJSON)
HERALD_FUZZER_MAIN(FuzzAmount)
HERALD_FUZZER_MAIN(FuzzConfig)
HERALD_FUZZER_MAIN(FuzzMQTTPayload)
