/*
 * The feature modules' tokens live in wiring/tokens.ts. This re-export stays only while
 * modules/products.ts and the generator's module template (both being rewritten with the generic
 * resource cores) import `../tokens.js`; once they import `../wiring/tokens.js`, it goes.
 */
export { token, TOKENS } from './wiring/tokens.js';
