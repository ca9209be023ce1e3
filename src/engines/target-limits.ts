/**
 * More response headers than this is a hostile target, not a web page: each would become a
 * `svc-original-header-*` header of the answer. (Their total size is capped by Node's and
 * Chrome's parsers.)
 */
export const MAX_TARGET_HEADERS = 256;
