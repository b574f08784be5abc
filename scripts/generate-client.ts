/** `npm run gen:client`: rewrites client/schema.gen.ts from the current OpenAPI description. */
import { writeFileSync } from "node:fs";
import { CLIENT_SCHEMA_FILE, generateClientSchema } from "./client-schema.ts";

writeFileSync(CLIENT_SCHEMA_FILE, await generateClientSchema());
process.stdout.write(`wrote ${CLIENT_SCHEMA_FILE}\n`);
