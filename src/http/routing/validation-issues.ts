import type { ValidationResult } from 'openapi-backend';

type ErrorObject = NonNullable<ValidationResult['errors']>[number];
import type { ValidationIssue } from '../errors/api-error.js';

const TYPE_MESSAGES: Record<string, [string, string]> = {
  integer: ['value is not a valid integer', 'type_error.integer'],
  number: ['value is not a valid number', 'type_error.number'],
  boolean: ['value could not be parsed to a boolean', 'type_error.bool'],
  string: ['str type expected', 'type_error.str'],
  array: ['value is not a valid list', 'type_error.list'],
  object: ['value is not a valid dict', 'type_error.dict'],
};

const PATTERN_MESSAGES: Record<string, [string, string]> = {
  url: ['invalid or missing URL scheme: only absolute http and https URLs are accepted', 'value_error.url.scheme'],
  js_snippet: ['value is not valid base64', 'value_error.base64'],
  proxy_country: ['ensure this value is a two-letter ISO country code', 'value_error.country_code'],
};

/** `/query/block_resource/0` → ['query', 'block_resource', 0]; the request body is called `body`. */
function location(instancePath: string, missing?: string): Array<string | number> {
  const parts: Array<string | number> = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (missing !== undefined) parts.push(missing);
  if (parts[0] === 'requestBody') parts[0] = 'body';
  return parts;
}

function describe(e: ErrorObject): [string, string] {
  const p = e.params as Record<string, unknown>;
  const field = e.instancePath.split('/')[2] ?? '';
  switch (e.keyword) {
    case 'required':
      return ['field required', 'value_error.missing'];
    case 'type':
      return TYPE_MESSAGES[String(p.type)] ?? [e.message ?? 'invalid type', 'type_error'];
    case 'minimum':
      return [`ensure this value is greater than or equal to ${p.limit}`, 'value_error.number.not_ge'];
    case 'maximum':
      return [`ensure this value is less than or equal to ${p.limit}`, 'value_error.number.not_le'];
    case 'enum':
      return [
        `value is not a valid enumeration member; permitted: ${(p.allowedValues as unknown[]).map((v) => `'${v}'`).join(', ')}`,
        'type_error.enum',
      ];
    case 'pattern':
      return PATTERN_MESSAGES[field] ?? [`string does not match regex "${p.pattern}"`, 'value_error.str.regex'];
    case 'minLength':
      return [`ensure this value has at least ${p.limit} characters`, 'value_error.any_str.min_length'];
    case 'maxLength':
      return [`ensure this value has at most ${p.limit} characters`, 'value_error.any_str.max_length'];
    case 'additionalProperties':
      return ['extra fields not permitted', 'value_error.extra'];
    case 'maxItems':
      return [`ensure this value has at most ${p.limit} items`, 'value_error.list.max_items'];
    default:
      return [e.message ?? 'invalid value', `value_error.${e.keyword}`];
  }
}

/** Ajv's errors in the FastAPI 422 shape (`loc`, `msg`, `type`) that established clients parse. */
export function validationIssues(errors: ErrorObject[]): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const e of errors) {
    const missing =
      e.keyword === 'required'
        ? String((e.params as { missingProperty: string }).missingProperty)
        : e.keyword === 'additionalProperties'
          ? String((e.params as { additionalProperty: string }).additionalProperty)
          : undefined;
    const loc = location(e.instancePath, missing);
    const key = loc.join('\u0000');
    if (seen.has(key)) continue; // one issue per field, the first ajv found
    seen.add(key);
    const [msg, type] = describe(e);
    issues.push({ loc, msg, type });
  }
  return issues;
}
