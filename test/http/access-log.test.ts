import { expect } from 'chai';
import querystring from 'node:querystring';
import { redactedUrl } from '../../src/http/access-log.js';

describe('redactedUrl', () => {
  it('replaces the API key wherever it stands in the query', () => {
    expect(redactedUrl('/v2/general?x-api-key=sg_secret&url=http%3A%2F%2Fa')).to.equal('/v2/general?x-api-key=[redacted]&url=http%3A%2F%2Fa');
    expect(redactedUrl('/v1/general?url=x&X-API-KEY=sg_secret')).to.equal('/v1/general?url=x&X-API-KEY=[redacted]');
    expect(redactedUrl('/v1/general?url=x')).to.equal('/v1/general?url=x');
  });

  it('redacts every spelling the query parser decodes to x-api-key, and loose ones besides', () => {
    const spellings = ['%78-api-key', 'x-api-k%65y', 'x%2Dapi-key', 'x%2dapi%2dkey', '%58-API-KEY', 'x-api-key%00', 'x+api+key', 'x_api_key', 'apikey', 'x-api-key[]', '%E2%80%8Bx-api-key'];
    for (const name of spellings) {
      const logged = redactedUrl(`/v2/general?url=x&${name}=sg_secret&${name}=sg_other`);
      expect(logged, name).to.not.contain('sg_secret').and.not.contain('sg_other');
    }
    // The parser's own reading of the first three: each is the key parameter.
    for (const name of spellings.slice(0, 3)) expect(Object.keys(querystring.parse(`${name}=k`)), name).to.deep.equal(['x-api-key']);
  });
});
