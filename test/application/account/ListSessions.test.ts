import { expect } from 'chai';
import { ListSessions } from '../../../src/application/account/ListSessions.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { A_CLIENT, newWorld, sessionIdOf, START, type World } from '../world.js';

describe('ListSessions', () => {
  let world: World;
  let list: ListSessions;
  let ada: User;

  beforeEach(async () => {
    world = newWorld();
    list = new ListSessions(world.sessionStore, world.clock);
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  it('lists the caller’s active sessions newest first, marking the current one', async () => {
    const first = sessionIdOf(world, await world.sessions.start(ada, { userAgent: 'phone', ip: '198.51.100.1' }));
    world.clock.advance(1000);
    const second = sessionIdOf(world, await world.sessions.start(ada, { userAgent: 'laptop', ip: '198.51.100.2' }));
    world.clock.advance(1000);
    const third = sessionIdOf(world, await world.sessions.start(ada, { userAgent: null, ip: null }));

    const sessions = await list.execute({ userId: ada.id, sessionId: second });

    expect(sessions.map((s) => s.id)).to.deep.equal([third, second, first]);
    expect(sessions.map((s) => s.current)).to.deep.equal([false, true, false]);
    expect(sessions[1]).to.deep.include({
      userId: ada.id,
      userAgent: 'laptop',
      ip: '198.51.100.2',
      createdAt: new Date(START.getTime() + 1000),
    });
    expect(sessions[2]).to.deep.include({
      userAgent: 'phone',
      ip: '198.51.100.1',
      createdAt: START,
      lastUsedAt: START,
    });
    expect(sessions[0]).to.deep.include({ userAgent: null, ip: null });
  });

  it('leaves out ended and expired sessions, and other users’ sessions', async () => {
    const bob = await world.given(aUser().withEmail('bob@example.com'));
    const old = await world.sessions.start(ada, A_CLIENT);
    world.clock.advance(world.tokens.refreshTokenTtlSeconds * 1000 - 1000);
    const ended = sessionIdOf(world, await world.sessions.start(ada, A_CLIENT));
    const kept = sessionIdOf(world, await world.sessions.start(ada, A_CLIENT));
    await world.sessions.start(bob, A_CLIENT);
    await world.ender.endOne(ada.id, ended);
    expect((await list.execute({ userId: ada.id, sessionId: kept })).map((s) => s.id)).to.include(
      sessionIdOf(world, old),
    );
    world.clock.advance(1000);
    expect((await list.execute({ userId: ada.id, sessionId: kept })).map((s) => s.id)).to.deep.equal([kept]);
  });

  it('marks none current when the caller’s session is not among them', async () => {
    await world.sessions.start(ada, A_CLIENT);
    const sessions = await list.execute({ userId: ada.id, sessionId: 'some-other-session' });
    expect(sessions.map((s) => s.current)).to.deep.equal([false]);
  });
});
