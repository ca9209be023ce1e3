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

/** The request's deadline passed before a usable answer arrived. */
export class DeadlineExceededError extends EngineError {}

/** The target's answer was larger than the configured cap (after decompression). */
export class TargetTooLargeError extends EngineError {}

/** The target resolves to an address the egress policy forbids. */
export class TargetForbiddenError extends EngineError {}

/** The awaited selector did not appear before the deadline. */
export class SelectorTimeoutError extends EngineError {}

/** The selector is not valid CSS. */
export class InvalidSelectorError extends EngineError {}

/** The target's anti-bot system refused the request. */
export class AntiBotDetectedError extends EngineError {}

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
