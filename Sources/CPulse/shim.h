#ifndef HERALD_CPULSE_SHIM_H
#define HERALD_CPULSE_SHIM_H
#include <pulse/pulseaudio.h>
#include <pulse/thread-mainloop.h>

// Casted macros do not import into Swift; these wrappers give them a name.
static inline uint32_t herald_pa_invalid_index(void) { return PA_INVALID_INDEX; }
static inline pa_volume_t herald_pa_volume_norm(void) { return PA_VOLUME_NORM; }
static inline pa_volume_t herald_pa_volume_max(void) { return PA_VOLUME_MAX; }
static inline unsigned herald_pa_channels_max(void) { return PA_CHANNELS_MAX; }

// pa_cvolume.values is a fixed C array (a 32-tuple in Swift); index it here.
static inline pa_volume_t herald_cvolume_get(const pa_cvolume *v, unsigned i) { return v->values[i]; }
static inline void herald_cvolume_set(pa_cvolume *v, unsigned i, pa_volume_t value) { v->values[i] = value; }
static inline pa_channel_position_t herald_channel_map_get(const pa_channel_map *m, unsigned i) { return m->map[i]; }

static inline pa_subscription_event_type_t herald_event_facility(pa_subscription_event_type_t t) {
    return t & PA_SUBSCRIPTION_EVENT_FACILITY_MASK;
}
static inline pa_subscription_event_type_t herald_event_kind(pa_subscription_event_type_t t) {
    return t & PA_SUBSCRIPTION_EVENT_TYPE_MASK;
}
#endif
