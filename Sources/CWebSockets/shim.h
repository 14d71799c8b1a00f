#ifndef CANOPY_CWEBSOCKETS_SHIM_H
#define CANOPY_CWEBSOCKETS_SHIM_H
#include <libwebsockets.h>

/// Bytes libwebsockets needs in front of every payload passed to lws_write.
static const int canopy_lws_pre = LWS_PRE;
/// Content length value meaning "no Content-Length header" (used for streaming responses).
static const unsigned long canopy_lws_illegal_http_content_len = LWS_ILLEGAL_HTTP_CONTENT_LEN;

/// Routes libwebsockets' log lines (variadic macros in C) to one callback.
static inline void canopy_lws_set_log(int levels, void (*emit)(int level, const char *line)) {
    lws_set_log_level(levels, emit);
}
#endif
