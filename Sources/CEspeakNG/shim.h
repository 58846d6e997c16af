#ifndef HERALD_CESPEAKNG_SHIM_H
#define HERALD_CESPEAKNG_SHIM_H
#include <espeak-ng/speak_lib.h>
#endif
