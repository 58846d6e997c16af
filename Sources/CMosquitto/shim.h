#ifndef HERALD_CMOSQUITTO_SHIM_H
#define HERALD_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
