import type { Request } from 'express';
import type { components } from '../../generated/openapi-types.js';
import type { Answers } from '../../scrape/answers/answers.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import { toScrapeRequest, type ScrapeParams } from '../decode/request-params.js';
import type { OperationHandler } from '../routing/operations.js';
import { scrapeRoute } from './scrape-route.js';

/** The service spec's limit for v1, which has no `timeout` parameter: 60 seconds. */
const V1_DEADLINE_SECONDS = 60;

type V1Params = ScrapeParams & { 'x-api-key'?: string; return_text: boolean };

/** v1 in either form: `{content, cookies, status_code}` for the parameters `params` finds. */
function v1Route<K extends 'v1GeneralGet' | 'v1GeneralPost'>(service: ScrapeService, answers: Answers, params: (v: Parameters<OperationHandler<K>>[0]) => V1Params): OperationHandler<K> {
  return scrapeRoute<K, components['schemas']['V1Result']>(service, {
    key: (v, req: Request) => apiKeyOf(req.get('x-api-key'), params(v)['x-api-key']),
    request: (v) => toScrapeRequest(params(v), { method: 'GET', body: undefined, forwardFrom: undefined, timeoutSeconds: V1_DEADLINE_SECONDS }),
    answer: (v) => answers.v1(params(v).return_text),
    respond: (res, { answer }) => void res.status(200).json(answer),
  });
}

/** v1GeneralGet: the parameters in the query string. */
export const v1GeneralGet = (service: ScrapeService, answers: Answers) => v1Route<'v1GeneralGet'>(service, answers, (v) => v.query);

/** v1GeneralPost: the same parameters in a JSON body (the key may also stay in the query). */
export const v1GeneralPost = (service: ScrapeService, answers: Answers) =>
  v1Route<'v1GeneralPost'>(service, answers, (v) => ({ ...v.body, 'x-api-key': v.body['x-api-key'] || v.query['x-api-key'] }));
