import { decodeFields, required } from '../../adapters/inbound/codecs/fields.js';
import { RegisterBody, RoleField } from '../../adapters/inbound/codecs/userCodecs.js';
import type { CreateUserInput } from '../../application/admin/CreateUser.js';
import { ValidationError } from '../../domain/shared/DomainError.js';
import { EmailAlreadyRegisteredError } from '../../domain/user/UserErrors.js';
import { UserTokens } from '../modules/identityTokens.js';
import { loadConfigOrExit, parseOptions, UsageError, withModules, type Command } from './command.js';

/** The options' names where they differ from the fields' (`first_name` is `--first-name`). */
const CLI_FIELD: Readonly<Record<string, string>> = { first_name: 'first-name', last_name: 'last-name' };

/** The options of `users:create`, decoded by the rules registration uses, the role besides. */
function createUserInput(args: string[]): CreateUserInput {
  const names = ['email', 'password', 'first-name', 'last-name', 'role'];
  const { values } = parseOptions(args, Object.fromEntries(names.map((name) => [name, { type: 'string' }])));
  try {
    const input = decodeFields(
      { ...RegisterBody, role: required(RoleField) },
      {
        email: values.email,
        password: values.password,
        first_name: values['first-name'],
        last_name: values['last-name'],
        role: values.role,
      },
    );
    const { email, password, role } = input;
    return { email, password, firstName: input.first_name, lastName: input.last_name, role };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new UsageError(error.fields.map((f) => `--${CLI_FIELD[f.field] ?? f.field} ${f.message}`).join('; '));
  }
}

/** `users:create`: the users module's CreateUser, on the configured database. */
export const usersCreate: Command = {
  summary: 'create a user with any role the policy knows (the way to make the first admin)',
  usage: 'users:create --email E --password P --first-name F --last-name L --role R',
  async run(args) {
    const input = createUserInput(args);
    const config = loadConfigOrExit();
    try {
      const user = await withModules(config, ({ container }) => container.get(UserTokens.CreateUser).execute(input));
      process.stdout.write(`created user ${user.id} ${user.email} with role ${user.role}\n`);
      return 0;
    } catch (error) {
      if (error instanceof ValidationError) {
        process.stderr.write(`portico: ${error.fields.map((f) => `--${f.field} ${f.message}`).join('; ')}\n`);
        return 1;
      }
      if (error instanceof EmailAlreadyRegisteredError) {
        process.stderr.write(`portico: ${input.email}: email already registered\n`);
        return 1;
      }
      throw error;
    }
  },
};
