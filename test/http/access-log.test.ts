import { expect } from 'chai';
import { redactedUrl } from '../../src/http/access-log.js';

describe('redactedUrl', () => {
  it('replaces the API key wherever it stands in the query', () => {
    expect(redactedUrl('/v2/general?x-api-key=sg_secret&url=http%3A%2F%2Fa')).to.equal('/v2/general?x-api-key=[redacted]&url=http%3A%2F%2Fa');
    expect(redactedUrl('/v1/general?url=x&X-API-KEY=sg_secret')).to.equal('/v1/general?url=x&X-API-KEY=[redacted]');
    expect(redactedUrl('/v1/general?url=x&x%2Dapi%2Dkey=sg_secret')).to.not.contain('sg_secret');
  });
});
