/** The admin the benchmark seeds and logs in as. */
export const BENCH_ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-password' };
