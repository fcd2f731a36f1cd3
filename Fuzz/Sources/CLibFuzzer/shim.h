#ifndef FENCEKIT_CLIBFUZZER_SHIM_H
#define FENCEKIT_CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): parses libFuzzer's flags from
// argc/argv and fuzzes the callback, as libFuzzer's own main() does.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
