/**
 * Who may call: HTTP Basic ({@link dev.gate.web.security.BasicAuthentication}, a Jakarta Security mechanism) over
 * the gate's own accounts in PostgreSQL, PBKDF2-hashed ({@link dev.gate.web.security.AccountStore}). Roles:
 * {@code caller} (its name is the program of its calls), {@code operator}, {@code viewer}. While the database is
 * unavailable, credentials that cannot be checked are answered 503 "Calls are paused", never 401.
 */
package dev.gate.web.security;
