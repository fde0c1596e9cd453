/**
 * Write the JSON Schemas of the YAML configurations to schema/ (run after changing a config schema;
 * test/runtime/config-schema.test.ts fails while the shipped files differ from the generated ones).
 *   npm run schema
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchemas, schemaText } from '../src/runtime/config-schema.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../schema');
for (const f of configSchemas()) {
  writeFileSync(path.join(dir, f.file), schemaText(f));
  console.log(`wrote schema/${f.file}`);
}
