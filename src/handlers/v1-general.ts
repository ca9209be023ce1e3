import type { Request, Response } from 'express';
import type { OperationHandler, ValidatedRequest } from '../api/openapi-router.js';
import { UnprocessableEntityError } from '../errors/api-error.js';
import { v1Result } from '../scrape/page-answers.js';
import { returnTextWanted, toScrapeRequest, type ValidatedParams } from '../scrape/request-params.js';
import type { ScrapeService } from '../scrape/scrape-service.js';

/** v1GeneralGet and v1GeneralPost: the same parameters from the query or a JSON body. */
export function v1General(service: ScrapeService): OperationHandler {
  return async (v: ValidatedRequest, req: Request, res: Response) => {
    const source = req.method === 'POST' ? 'body' : 'query';
    const params = ((source === 'body' ? v.body : v.query) ?? {}) as ValidatedParams;
    const apiKey = [req.get('x-api-key'), params['x-api-key'], v.query['x-api-key']].find(
      (k): k is string => typeof k === 'string' && k.length > 0,
    );
    if (!apiKey) {
      throw new UnprocessableEntityError([
        { loc: [source, 'x-api-key'], msg: 'field required (or send the x-api-key header)', type: 'value_error.missing' },
      ]);
    }
    const request = toScrapeRequest(params, { method: 'GET', body: undefined, rawHeaders: [], collectExtras: false, wantsCookies: true, forwardHeaders: false, source });
    const { page, cost } = await service.scrape(apiKey, request);
    res.locals.cost = cost;
    res.setHeader('Svc-credits-cost', String(cost));
    res.status(200).json(v1Result(page, returnTextWanted(params)));
  };
}
