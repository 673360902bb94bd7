import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The parent's environment without any SVC_ variable, so only the test's own settings count. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('SVC_')) env[name] = value;
  return { ...env, ...extra };
}

function runServer(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/server.ts'], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not exit within 15 s\n${stdout}\n${stderr}`));
    }, 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('starting the server with a bad configuration', function () {
  this.timeout(20_000);

  it('exits 1 with one line per problem and no stack trace', async () => {
    const { code, stdout, stderr } = await runServer({ SVC_JWT_EXPIRATION: '24x', SVC_SERVER_PORT: 'abc' });
    expect(code, stderr).to.equal(1);
    const lines = stderr.split('\n').map((l) => l.trim());
    expect(lines).to.include('jwt.expiration: "24x" is not a duration');
    expect(lines).to.include('server.port: "abc" is not an integer from 0 to 65535');
    expect(lines.filter((l) => l.includes(' is not '))).to.have.length(2);
    expect(stderr).to.not.match(/^ {4}at /m);
    expect(stderr).to.not.include('Error:');
    expect(stdout).to.not.include('listening');
  });
});
