/** The target's anti-bot system refused the request (on every proxy tried). */
export class AntiBotDetectedError extends Error {
  readonly outcome = 'walled';

  constructor(
    readonly vendor: string,
    readonly wall: string,
  ) {
    super(`${vendor} ${wall}`);
    this.name = 'AntiBotDetectedError';
  }
}
