/** Benchmarks: programs that run gate copies against a real PostgreSQL and print figures. Never tests. */
package dev.gate.bench;
