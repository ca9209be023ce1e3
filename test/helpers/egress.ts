import pino from 'pino';
import { AddressPolicy } from '../../src/egress/target-policy/address-policy.js';
import { OwnPorts } from '../../src/egress/target-policy/own-ports.js';
import { parseRangeList } from '../../src/ip/ip-range.js';
import { EgressContext } from '../../src/egress/egress-context.js';
import { EgressRoute } from '../../src/egress/proxies/egress-route.js';
import { TargetPolicy, type Lookup } from '../../src/egress/target-policy/target-policy.js';
import { Deadline } from '../../src/time/deadline.js';

export interface PolicyOptions {
  allowPrivate?: boolean;
  allowCidrs?: string;
  ownPorts?: OwnPorts;
  lookup?: Lookup;
}

export function targetPolicy(o: PolicyOptions = {}): TargetPolicy {
  const addresses = new AddressPolicy({ allowPrivate: o.allowPrivate ?? false, allowCidrs: parseRangeList(o.allowCidrs ?? ''), ownPorts: o.ownPorts ?? new OwnPorts() });
  return new TargetPolicy(addresses, o.lookup);
}

/** A direct egress for one request, as the scrape service opens it, for tests that drive a part alone. */
export function directEgress(o: PolicyOptions & { budgetMs?: number } = {}): EgressContext {
  return new EgressContext(targetPolicy(o), EgressRoute.direct('datacenter'), new Deadline(o.budgetMs ?? 30_000), pino({ level: 'silent' }));
}
