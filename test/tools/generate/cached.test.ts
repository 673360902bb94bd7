import { expect } from 'chai';
import { modelOfDeclaration } from '../../../tools/generate/declarations.js';
import { HELP } from '../../../tools/generate/help.js';
import { entityFile } from '../../../tools/generate/templates/domain/entity.js';
import { declareResource, field } from '../../../src/domain/shared/resource.js';
import { modelOf, squeezed } from './models.js';

/** `generate resource note … --cached`: a GET by id goes through the shared cache. */
const NOTE_ARGS = ['note', 'title:string', '--cached'];
const noteModel = () => modelOf(NOTE_ARGS, [], '20261127T0512');

describe('generate: --cached', () => {
  it('is read anywhere among the arguments; without it a resource is not cached', () => {
    expect(noteModel().cached).to.equal(true);
    expect(modelOf(['note', '--cached', 'title:string', '--owned'], ['user'], '20261127T0512').cached).to.equal(true);
    expect(modelOf(['note', 'title:string'], [], '20261127T0512').cached).to.equal(undefined);
  });

  it('writes cached: true in the declaration, and nothing of it without the option', () => {
    expect(squeezed(entityFile(noteModel()).contents)).to.include(
      squeezed(`plural: 'notes',
  fields: {
    title: field.string(1, 200),
  },
  cached: true,
});`),
    );
    expect(entityFile(modelOf(['note', 'title:string'], [], '20261127T0512')).contents).not.to.include('cached');
  });

  it('reads cached back from a declaration (for the field and command generators)', () => {
    const declared = (cached?: boolean) =>
      declareResource({
        name: 'note',
        plural: 'notes',
        fields: { title: field.string() },
        ...(cached ? { cached } : {}),
      });
    expect(declared(true).cached).to.equal(true);
    expect(declared().cached).to.equal(false);
    expect(modelOfDeclaration(declared(true)).cached).to.equal(true);
    expect(modelOfDeclaration(declared()).cached).to.equal(undefined);
  });

  it('is named in --help', () => {
    expect(HELP).to.include('[--cached]');
    expect(HELP).to.match(/^--cached {2,}/m);
  });
});
