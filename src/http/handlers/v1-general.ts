import type { Request, Response } from 'express';
import type { OperationHandler } from '../routing/operations.js';
import { recordCost, scrapeCall } from '../answer-locals.js';
import { clientAddressOf } from '../client-address.js';
import { apiKeyOf } from '../decode/api-key-of.js';
import type { PageAnswers } from '../../scrape/page-answers.js';
import { toScrapeRequest, type ScrapeParams } from '../decode/request-params.js';
import type { ScrapeService } from '../../scrape/scrape-service.js';

/** The service spec's limit for v1, which has no `timeout` parameter: 60 seconds. */
const V1_DEADLINE_SECONDS = 60;

type V1Params = ScrapeParams & { 'x-api-key'?: string; return_text: boolean };

function answer(service: ScrapeService, answers: PageAnswers) {
  return async (operation: string, params: V1Params, req: Request, res: Response) => {
    const apiKey = apiKeyOf(req.get('x-api-key'), params['x-api-key']);
    const request = toScrapeRequest(params, {
      operation,
      method: 'GET',
      body: undefined,
      rawHeaders: [],
      collectExtras: false,
      wantsCookies: true,
      wantsText: params.return_text,
      htmlWork: params.return_text,
      forwardHeaders: false,
      timeoutSeconds: V1_DEADLINE_SECONDS,
      clientAddress: clientAddressOf(req),
    });
    const { answer, cost } = await service.scrape(apiKey, request, (page, owner) => answers.v1Result(page, params.return_text, owner), scrapeCall(res));
    recordCost(res, cost);
    res.status(200).json(answer);
  };
}

/** v1GeneralGet: the parameters in the query string. */
export function v1GeneralGet(service: ScrapeService, answers: PageAnswers): OperationHandler<'v1GeneralGet'> {
  const run = answer(service, answers);
  return (v, req, res) => run(v.operation, v.query, req, res);
}

/** v1GeneralPost: the same parameters in a JSON body (the key may also stay in the query). */
export function v1GeneralPost(service: ScrapeService, answers: PageAnswers): OperationHandler<'v1GeneralPost'> {
  const run = answer(service, answers);
  return (v, req, res) => run(v.operation, { ...v.body, 'x-api-key': v.body['x-api-key'] || v.query['x-api-key'] }, req, res);
}
