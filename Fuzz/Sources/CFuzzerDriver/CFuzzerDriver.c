// The declaration of libFuzzer's driver is all this module holds; its definition is in the sanitizer runtime.
#include "CFuzzerDriver.h"
