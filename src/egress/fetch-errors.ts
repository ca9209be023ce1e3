/**
 * Every way a fetch fails that is not a bug of the service: the target (unreachable, too slow,
 * unusable), the way to it (refused by the target policy, a proxy), or the engine itself. Not HTTP:
 * each names its outcome, from which the ledger records the request and the edge answers it.
 */
export abstract class FetchError extends Error {
  abstract readonly outcome: 'target_unreachable' | 'timeout' | 'target_unusable' | 'page_crashed' | 'element_not_found' | 'invalid_value' | 'browser_failed';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Every connection attempt within the deadline failed. */
export class TargetUnreachableError extends FetchError {
  readonly outcome = 'target_unreachable';
}

/**
 * How a connection to a target failed, as the egress layer saw it. Both engines connect through
 * it, so the same failure reads the same whichever engine met it.
 */
export type EgressFailureKind = 'dns' | 'refused' | 'reset' | 'unreachable' | 'tls' | 'policy' | 'proxy' | 'headers';

/** Worth another attempt while the deadline allows: the target (or a proxy) may come up. */
const TRANSIENT: ReadonlySet<EgressFailureKind> = new Set(['refused', 'reset', 'unreachable', 'proxy']);

export class EgressError extends TargetUnreachableError {
  constructor(
    readonly kind: EgressFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get transient(): boolean {
    return TRANSIENT.has(this.kind);
  }
}

/**
 * The target policy refused an address or URL. As the requested URL itself it is the caller's
 * invalid value (the scrape service says so); met on the way (a redirect, a subresource) it is a
 * target failure.
 */
export class TargetForbiddenError extends EgressError {
  constructor(readonly reason: string) {
    super('policy', `blocked by the target policy: ${reason}`);
  }
}

/** The request's deadline passed before a usable answer arrived. */
export class DeadlineExceededError extends FetchError {
  readonly outcome = 'timeout';
}

/** The target answered, but nothing usable as a page. */
export class TargetUnusableError extends FetchError {
  readonly outcome: 'target_unusable' | 'page_crashed' = 'target_unusable';
}

/** The target's answer was larger than the configured cap (after decompression). */
export class TargetTooLargeError extends TargetUnusableError {}

/** A parameter names something this server cannot do: `param` says which. */
export abstract class UnservedValueError extends FetchError {
  readonly outcome = 'invalid_value';
  abstract readonly param: string;
}

/** The requested proxy type or country is not configured on this server. */
export class ProxyUnavailableError extends UnservedValueError {
  constructor(
    readonly param: 'proxy_type' | 'proxy_country',
    message: string,
  ) {
    super(message);
  }
}
