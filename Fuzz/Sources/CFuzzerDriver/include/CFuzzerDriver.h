#ifndef C_FUZZER_DRIVER_H
#define C_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, from the toolchain's libclang_rt.fuzzer (linked by `-sanitize=fuzzer`): parses libFuzzer's
/// options from `argv` and fuzzes `callback`. Returns the process's exit status.
int LLVMFuzzerRunDriver(int *_Nonnull argc, char *_Nullable *_Nullable *_Nonnull argv,
                        int (*_Nonnull callback)(const uint8_t *_Nonnull data, size_t size));

#endif
