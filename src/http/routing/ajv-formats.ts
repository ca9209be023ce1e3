import ajvFormats from 'ajv-formats';
import type { AjvCustomizer } from 'openapi-backend';

// ajv-formats is CommonJS with `exports.default`: under NodeNext its default import is the module object.
const addFormats = ajvFormats.default;

/** Teaches ajv the OpenAPI string formats the document uses (date-time, byte, binary). */
export const withFormats: AjvCustomizer = (ajv) => addFormats(ajv);
