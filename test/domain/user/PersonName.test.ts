import { expect } from 'chai';
import { CONTROL_MESSAGE, personNameProblem } from '../../../src/domain/user/PersonName.js';

describe('PersonName', () => {
  for (const name of ['Ada', 'Ada Lovelace', 'José', "O'Brien", 'Ada, the Countess', '李']) {
    it(`accepts ${JSON.stringify(name)}`, () => expect(personNameProblem(name)).to.equal(undefined));
  }
  for (const [label, name] of [
    ['a line feed', 'Ada\nBcc: eve@example.com'],
    ['a carriage return', 'Ada\rX'],
    ['a tab', 'Ada\tLovelace'],
    ['a NUL', 'Ada\u0000'],
    ['an escape', 'Ada\u001b[31m'],
    ['a C1 control', 'Ada\u0085'],
  ] as const) {
    it(`refuses ${label}`, () => expect(personNameProblem(name)).to.equal(CONTROL_MESSAGE));
  }
});
