/**
 * What a fetcher throws when the target, not scrapegate, is the problem. Fetchers throw only
 * these (or bugs); translate-engine-error.ts turns them into API answers in one place.
 */
export abstract class EngineError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Every connection attempt within the deadline failed. */
export class TargetUnreachableError extends EngineError {}

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

/** The request's deadline passed before a usable answer arrived. */
export class DeadlineExceededError extends EngineError {}

/** The target answered, but nothing usable as a page. */
export class TargetUnusableError extends EngineError {}

/** The target's answer was larger than the configured cap (after decompression). */
export class TargetTooLargeError extends TargetUnusableError {}

/**
 * The page crashed the renderer it ran in (it ran out of memory, or reached another of the
 * browser's limits): the page's doing, which retrying does not change, not the browser's failure.
 */
export class PageCrashedError extends TargetUnusableError {}

/**
 * The target policy refused an address or URL. As the requested URL itself it is the caller's
 * invalid value (422); met on the way (a redirect, a subresource) it is a target failure (404).
 */
export class TargetForbiddenError extends EgressError {
  constructor(readonly reason: string) {
    super('policy', `blocked by the target policy: ${reason}`);
  }
}

/** The requested proxy type or country is not configured on this server. */
export class ProxyUnavailableError extends EngineError {
  constructor(
    readonly param: 'proxy_type' | 'proxy_country',
    message: string,
  ) {
    super(message);
  }
}

/** The awaited selector did not appear before the deadline. */
export class SelectorTimeoutError extends EngineError {}

/** The selector is not valid CSS; `param` names the parameter that gave it. */
export class InvalidSelectorError extends EngineError {
  constructor(
    message: string,
    readonly param: 'wait_for_selector' | 'screenshot_selector' = 'wait_for_selector',
  ) {
    super(message);
  }
}

/** The element to capture is not on the page (or has no size). */
export class ElementNotFoundError extends EngineError {}

/** The target's anti-bot system refused the request (on every proxy tried). */
export class AntiBotDetectedError extends EngineError {
  constructor(
    readonly vendor: string,
    readonly wall: string,
  ) {
    super(`${vendor} ${wall}`);
  }
}

/** The browser itself failed (crashed, killed, lost its driver): scrapegate's failure, not the target's. */
export class BrowserFailureError extends EngineError {
  constructor(
    message: string,
    /** Whether the target had been sent the request before the failure. */
    readonly targetContacted: boolean,
  ) {
    super(message);
  }
}

/** The engine asked for is not available on this server. */
export class EngineUnavailableError extends EngineError {}
