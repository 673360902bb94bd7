import { ContainerModule, type Bind } from 'inversify';
import { MFA_OPERATIONS, mfaRoutes, type MfaUseCases } from '../../adapters/inbound/http/routes/mfa.js';
import { AesGcmSecretBox } from '../../adapters/outbound/crypto/AesGcmSecretBox.js';
import { KeyedOneTimeSecrets } from '../../adapters/outbound/crypto/KeyedOneTimeSecrets.js';
import { KeyedRecoveryCodes } from '../../adapters/outbound/crypto/KeyedRecoveryCodes.js';
import { OtplibOneTimePasswords } from '../../adapters/outbound/crypto/OtplibOneTimePasswords.js';
import { SqlMfaChallengeStore } from '../../adapters/outbound/mikroorm/SqlMfaChallengeStore.js';
import { SqlTotpStore } from '../../adapters/outbound/mikroorm/SqlTotpStore.js';
import { ConfirmTotp } from '../../application/mfa/ConfirmTotp.js';
import { DisableTotp } from '../../application/mfa/DisableTotp.js';
import { SignInGate } from '../../application/mfa/SignInGate.js';
import { StartTotp } from '../../application/mfa/StartTotp.js';
import { VerifySecondFactor } from '../../application/mfa/VerifySecondFactor.js';
import type { MfaChallengeStore } from '../../application/ports/MfaChallengeStore.js';
import type { OneTimePasswords } from '../../application/ports/OneTimePasswords.js';
import type { OneTimeSecrets } from '../../application/ports/OneTimeSecrets.js';
import type { RecoveryCodes } from '../../application/ports/RecoveryCodes.js';
import type { SecretBox } from '../../application/ports/SecretBox.js';
import type { TotpStore } from '../../application/ports/TotpStore.js';
import { secretsKey } from '../config/secretsKey.js';
import { token, TOKENS } from '../wiring/tokens.js';
import { bindBuilt, built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';
import { SessionTokens, SignInTokens, UserTokens } from './identityTokens.js';

export const MfaTokens = {
  Totp: token<TotpStore>('mfa.TotpStore'),
  /** The `mfa_token`s: a selector and a keyed verifier, like e-mailed tokens, under a key of their own use. */
  Secrets: token<OneTimeSecrets>('mfa.Secrets'),
  Box: token<SecretBox>('mfa.SecretBox'),
  RecoveryCodes: token<RecoveryCodes>('mfa.RecoveryCodes'),
  Otp: token<OneTimePasswords>('mfa.OneTimePasswords'),
  UseCases: token<MfaUseCases>('mfa.UseCases'),
} as const;

/** The stores and the keyed crypto of second factors; every key derived from `secrets.encryption_key`. */
function bindSecondFactors(bind: Bind): void {
  bindBuilt(
    bind(MfaTokens.Totp),
    built({ database: TOKENS.Database }, ({ database }): TotpStore => new SqlTotpStore(database)),
  );
  bindBuilt(
    bind(SignInTokens.Challenges),
    built({ database: TOKENS.Database }, ({ database }): MfaChallengeStore => new SqlMfaChallengeStore(database)),
  );
  bindBuilt(
    bind(MfaTokens.Secrets),
    built({ config: TOKENS.Config }, ({ config }): OneTimeSecrets => new KeyedOneTimeSecrets(secretsKey(config))),
  );
  bindBuilt(
    bind(MfaTokens.Box),
    built({ config: TOKENS.Config }, ({ config }): SecretBox => new AesGcmSecretBox(secretsKey(config))),
  );
  bindBuilt(
    bind(MfaTokens.RecoveryCodes),
    built({ config: TOKENS.Config }, ({ config }): RecoveryCodes => new KeyedRecoveryCodes(secretsKey(config))),
  );
  bindBuilt(
    bind(MfaTokens.Otp),
    built({}, (): OneTimePasswords => new OtplibOneTimePasswords()),
  );
  bindBuilt(
    bind(SignInTokens.Gate),
    built(
      {
        issuer: SessionTokens.Issuer,
        challenges: SignInTokens.Challenges,
        secrets: MfaTokens.Secrets,
        clock: TOKENS.Clock,
      },
      (deps) => new SignInGate(deps),
    ),
  );
}

/** The use cases the second-factor routes serve, each given by name what it takes of these. */
const useCases = built(
  {
    users: UserTokens.Repository,
    hasher: UserTokens.PasswordHasher,
    throttle: TOKENS.LoginThrottle,
    attempts: SessionTokens.LoginAttempts,
    totp: MfaTokens.Totp,
    challenges: SignInTokens.Challenges,
    secrets: MfaTokens.Secrets,
    box: MfaTokens.Box,
    recoveryCodes: MfaTokens.RecoveryCodes,
    otp: MfaTokens.Otp,
    issuer: SessionTokens.Issuer,
    transactions: TOKENS.Transactions,
    clock: TOKENS.Clock,
    authenticate: TOKENS.Authenticate,
    config: TOKENS.Config,
  },
  (deps): MfaUseCases => ({
    authenticate: deps.authenticate,
    startTotp: new StartTotp({ ...deps, issuerName: deps.config.jwt.issuer }),
    confirmTotp: new ConfirmTotp(deps),
    disableTotp: new DisableTotp(deps),
    verifySecondFactor: new VerifySecondFactor(deps),
  }),
);

/** TOTP with recovery codes, and the second step of a sign-in (docs/authentication.md); always served. */
export const mfa: FeatureModule = {
  name: 'mfa',
  bindings: new ContainerModule(({ bind }) => {
    bindSecondFactors(bind);
    bindBuilt(bind(MfaTokens.UseCases), useCases);
  }),
  rest: {
    always: true,
    operations: Object.values(MFA_OPERATIONS),
    routes: built({ uses: MfaTokens.UseCases }, ({ uses }) => mfaRoutes(uses)),
  },
};
