import { ContainerModule } from 'inversify';
import {
  PASSKEY_OPERATIONS,
  passkeyRoutes,
  type PasskeyUseCases,
} from '../../adapters/inbound/http/routes/passkeys.js';
import { KeyedOneTimeSecrets } from '../../adapters/outbound/crypto/KeyedOneTimeSecrets.js';
import { SqlPasskeyChallengeStore } from '../../adapters/outbound/mikroorm/SqlPasskeyChallengeStore.js';
import { SqlPasskeyStore } from '../../adapters/outbound/mikroorm/SqlPasskeyStore.js';
import { SimpleWebAuthn } from '../../adapters/outbound/webauthn/SimpleWebAuthn.js';
import { CeremonyChallenges } from '../../application/passkeys/CeremonyChallenges.js';
import { ListPasskeys } from '../../application/passkeys/ListPasskeys.js';
import { RegisterPasskey } from '../../application/passkeys/RegisterPasskey.js';
import { RemovePasskey } from '../../application/passkeys/RemovePasskey.js';
import { SignInWithPasskey } from '../../application/passkeys/SignInWithPasskey.js';
import { StartPasskeyRegistration } from '../../application/passkeys/StartPasskeyRegistration.js';
import { StartPasskeySignIn } from '../../application/passkeys/StartPasskeySignIn.js';
import type { PasskeyChallengeStore } from '../../application/ports/PasskeyChallengeStore.js';
import type { PasskeyStore } from '../../application/ports/PasskeyStore.js';
import type { WebAuthn } from '../../application/ports/WebAuthn.js';
import { secretsKey } from '../config/secretsKey.js';
import { token, TOKENS } from '../wiring/tokens.js';
import { bindBuilt, built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';
import { SessionTokens, SignInTokens, UserTokens } from './identityTokens.js';

export const PasskeyTokens = {
  WebAuthn: token<WebAuthn>('passkeys.WebAuthn'),
  /** The ceremonies' challenges: OneTimeSecrets tokens, kept only as their verifiers' hashes. */
  Ceremonies: token<CeremonyChallenges>('passkeys.Ceremonies'),
  UseCases: token<PasskeyUseCases>('passkeys.UseCases'),
} as const;

/** The use cases the passkey routes serve, each given by name what it takes of these. */
const useCases = built(
  {
    users: UserTokens.Repository,
    passkeys: SignInTokens.Passkeys,
    identities: SignInTokens.Identities,
    ceremonies: PasskeyTokens.Ceremonies,
    webAuthn: PasskeyTokens.WebAuthn,
    issuer: SessionTokens.Issuer,
    gate: SignInTokens.Gate,
    transactions: TOKENS.Transactions,
    ids: TOKENS.IdGenerator,
    clock: TOKENS.Clock,
    authenticate: TOKENS.Authenticate,
    config: TOKENS.Config,
  },
  (deps): PasskeyUseCases => {
    const uses = { ...deps, requireUserVerification: deps.config.auth.webauthn.requireUserVerification };
    return {
      authenticate: deps.authenticate,
      startRegistration: new StartPasskeyRegistration(uses),
      register: new RegisterPasskey(uses),
      list: new ListPasskeys(uses),
      remove: new RemovePasskey(uses),
      startSignIn: new StartPasskeySignIn(uses),
      signIn: new SignInWithPasskey(uses),
    };
  },
);

/** Passkeys (WebAuthn): registered on the profile, a sign-in of their own, a second factor (docs/authentication.md); always served. */
export const passkeys: FeatureModule = {
  name: 'passkeys',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(SignInTokens.Passkeys),
      built({ database: TOKENS.Database }, ({ database }): PasskeyStore => new SqlPasskeyStore(database)),
    );
    bindBuilt(
      bind(SignInTokens.PasskeyChallenges),
      built(
        { database: TOKENS.Database },
        ({ database }): PasskeyChallengeStore => new SqlPasskeyChallengeStore(database),
      ),
    );
    bindBuilt(
      bind(PasskeyTokens.WebAuthn),
      built({ config: TOKENS.Config }, ({ config }): WebAuthn => new SimpleWebAuthn(config.auth.webauthn)),
    );
    bindBuilt(
      bind(PasskeyTokens.Ceremonies),
      built(
        { challenges: SignInTokens.PasskeyChallenges, config: TOKENS.Config, clock: TOKENS.Clock },
        ({ challenges, config, clock }) =>
          new CeremonyChallenges({ challenges, secrets: new KeyedOneTimeSecrets(secretsKey(config)), clock }),
      ),
    );
    bindBuilt(bind(PasskeyTokens.UseCases), useCases);
  }),
  rest: {
    always: true,
    operations: Object.values(PASSKEY_OPERATIONS),
    routes: built({ uses: PasskeyTokens.UseCases }, ({ uses }) => passkeyRoutes(uses)),
  },
};
