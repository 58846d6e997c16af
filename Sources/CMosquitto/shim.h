#ifndef HERALD_CMOSQUITTO_SHIM_H
#define HERALD_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
/* MQTT 5 property identifiers, reason codes and subscription options. */
#include <mqtt_protocol.h>

/* mosquitto.h's log levels are shift expressions: plain constants for Swift. */
static const int herald_mosq_log_err = MOSQ_LOG_ERR;
static const int herald_mosq_log_warning = MOSQ_LOG_WARNING;
#endif
