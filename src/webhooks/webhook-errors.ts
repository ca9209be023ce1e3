/** A webhook URL that may not be called: the edge answers 400 with the message (it never names a resolved address). */
export class WebhookRefusedError extends Error {
  readonly outcome = 'webhook_refused';

  constructor(message: string) {
    super(message);
    this.name = 'WebhookRefusedError';
  }
}

/** No delivery has this id (the admin API's replay answers 404). */
export class DeliveryNotFoundError extends Error {
  constructor() {
    super('No webhook delivery has this id.');
    this.name = 'DeliveryNotFoundError';
  }
}
