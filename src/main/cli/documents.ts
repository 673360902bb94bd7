import { configurationReference } from '../config/reference.js';
import { MODULES } from '../modules/index.js';
import { apiDocument } from '../wiring/apiDocument.js';
import { loadConfigOrExit, noArguments, type Command } from './command.js';

/** `config:docs`: the configuration reference, from the schema; nothing is read or started. */
export const configDocs: Command = {
  summary: 'print the configuration reference (every key, its SVC_ variable, type, default and meaning) as Markdown',
  usage: 'config:docs',
  async run(args) {
    noArguments('config:docs', args);
    process.stdout.write(configurationReference());
    return 0;
  },
};

/** `openapi`: the API document of what this configuration serves; nothing is started. */
export const openapi: Command = {
  summary: 'print the OpenAPI 3.1 document of the REST API this configuration serves (nothing is started)',
  usage: 'openapi',
  async run(args) {
    noArguments('openapi', args);
    const config = loadConfigOrExit();
    process.stdout.write(`${JSON.stringify(apiDocument(MODULES, config), null, 2)}\n`);
    return 0;
  },
};
