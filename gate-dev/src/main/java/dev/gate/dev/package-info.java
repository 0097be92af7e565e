/**
 * What the tests, the benchmark and the run command start, never deployed: the test PostgreSQL ({@link
 * dev.gate.dev.TestDatabase}: {@code GATE_TEST_DB_URL}, or an embedded real one), a fresh database with the gate's
 * schema ({@link dev.gate.dev.GateDatabase}), the one reader of the send log ({@link dev.gate.dev.SendLog}), a TCP
 * proxy that cuts the database away ({@link dev.gate.dev.TcpProxy}), a real PgBouncer in front of it
 * ({@link dev.gate.dev.PgBouncer}), and the run command's launcher ({@link
 * dev.gate.dev.DevRun}).
 */
package dev.gate.dev;
