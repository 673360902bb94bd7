import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api, dataOf } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { capturingLogger } from '../support/logger.js';

describe('GraphQL request log lines', () => {
  let service: RunningService;
  let captured: ReturnType<typeof capturingLogger>;

  before(async () => {
    captured = capturingLogger();
    service = await startService(
      testConfig({
        SVC_API_MODE: 'both',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_LOG_LEVEL: 'info',
      }),
      {
        logger: captured.logger,
      },
    );
  });
  after(async () => service.stop());

  it('carry the user id once a resolver has authenticated the caller, like REST lines do', async () => {
    const registered = await new Api(service.url).post('/api/v1/auth/register', {
      json: { email: 'gql-log@example.com', password: 'password123', first_name: 'G', last_name: 'L' },
    });
    const data = dataOf<{ access_token: string; user: { id: string } }>(registered, 201);
    const answer = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${data.access_token}` },
      body: JSON.stringify({ query: '{ products { data { id } } }' }),
    });
    expect(answer.status).to.equal(200);
    const line = captured.lines().find((l) => l.msg === 'request' && l.path === '/graphql');
    expect(line).to.include({ method: 'POST', status: 200, user_id: data.user.id });
  });
});
