import { ContainerModule, type Bind } from 'inversify';
import { OIDC_OPERATIONS, oidcRoutes, type OidcUseCases } from '../../adapters/inbound/http/routes/oidc.js';
import { AesGcmSecretBox } from '../../adapters/outbound/crypto/AesGcmSecretBox.js';
import { KeyedOneTimeSecrets } from '../../adapters/outbound/crypto/KeyedOneTimeSecrets.js';
import { SqlIdentityStore } from '../../adapters/outbound/mikroorm/SqlIdentityStore.js';
import { SqlOidcHandoffStore } from '../../adapters/outbound/mikroorm/SqlOidcHandoffStore.js';
import { OpenIdClientProviders } from '../../adapters/outbound/oidc/OpenIdClientProviders.js';
import { BrowserSignIn } from '../../application/oidc/BrowserSignIn.js';
import { LinkedIdentities } from '../../application/oidc/LinkedIdentities.js';
import { NativeSignIn } from '../../application/oidc/NativeSignIn.js';
import { OidcAccounts } from '../../application/oidc/OidcAccounts.js';
import type { IdentityProviders } from '../../application/ports/IdentityProviders.js';
import type { IdentityStore } from '../../application/ports/IdentityStore.js';
import type { OidcHandoffStore } from '../../application/ports/OidcHandoffStore.js';
import { secretsKey } from '../config/secretsKey.js';
import { token, TOKENS } from '../wiring/tokens.js';
import { bindBuilt, built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';
import { MailTokens, SignInTokens, UserTokens } from './identityTokens.js';

export const OidcTokens = {
  Providers: token<IdentityProviders>('oidc.Providers'),
  UseCases: token<OidcUseCases>('oidc.UseCases'),
} as const;

/** The stores and the configured providers. */
function bindStores(bind: Bind): void {
  bindBuilt(
    bind(SignInTokens.Identities),
    built({ database: TOKENS.Database }, ({ database }): IdentityStore => new SqlIdentityStore(database)),
  );
  bindBuilt(
    bind(SignInTokens.OidcHandoffs),
    built({ database: TOKENS.Database }, ({ database }): OidcHandoffStore => new SqlOidcHandoffStore(database)),
  );
  bindBuilt(
    bind(OidcTokens.Providers),
    built(
      { config: TOKENS.Config },
      ({ config }): IdentityProviders => new OpenIdClientProviders(config.auth.oidc.providers),
    ),
  );
}

/** The use cases the routes serve, each given by name what it takes of these. */
const useCases = built(
  {
    users: UserTokens.Repository,
    identities: SignInTokens.Identities,
    passkeys: SignInTokens.Passkeys,
    handoffs: SignInTokens.OidcHandoffs,
    providers: OidcTokens.Providers,
    links: MailTokens.AccountLinks,
    gate: SignInTokens.Gate,
    transactions: TOKENS.Transactions,
    ids: TOKENS.IdGenerator,
    clock: TOKENS.Clock,
    authenticate: TOKENS.Authenticate,
    config: TOKENS.Config,
  },
  (deps): OidcUseCases => {
    const { config } = deps;
    const accounts = new OidcAccounts({ ...deps, requireVerifiedEmail: config.auth.requireVerifiedEmail });
    return {
      authenticate: deps.authenticate,
      browser: new BrowserSignIn({
        ...deps,
        accounts,
        // States and one-time codes: a selector and a keyed verifier, like e-mailed tokens; the nonce and PKCE verifier sealed.
        secrets: new KeyedOneTimeSecrets(secretsKey(config)),
        box: new AesGcmSecretBox(secretsKey(config)),
        redirectUris: config.auth.oidc.redirectUris,
      }),
      native: new NativeSignIn({ providers: deps.providers, accounts }),
      identities: new LinkedIdentities(deps),
      publicUrl: config.server.publicUrl,
    };
  },
);

/** Sign-in with OpenID Connect providers, and the caller's linked identities (docs/authentication.md); always served. */
export const oidc: FeatureModule = {
  name: 'oidc',
  bindings: new ContainerModule(({ bind }) => {
    bindStores(bind);
    bindBuilt(bind(OidcTokens.UseCases), useCases);
  }),
  rest: {
    always: true,
    operations: Object.values(OIDC_OPERATIONS),
    routes: built({ uses: OidcTokens.UseCases }, ({ uses }) => oidcRoutes(uses)),
  },
};
