#ifndef HERALD_CSNDFILE_SHIM_H
#define HERALD_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
