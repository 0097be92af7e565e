/**
 * Who may call, and who may look: one Jakarta Security mechanism ({@link dev.gate.web.security.Authentication}) over
 * the gate's own accounts in PostgreSQL, PBKDF2-hashed ({@link dev.gate.web.security.AccountStore}). The HTTP API
 * takes HTTP Basic ({@link dev.gate.web.security.BasicAuthentication}); the status page a person signed in on its
 * sign-in page ({@link dev.gate.web.security.SignIn}), kept in the HTTP session. Roles: {@code caller} (its name is
 * the program of its calls), {@code operator}, {@code viewer}. While the database is unavailable, credentials that
 * cannot be checked are answered 503 "Calls are paused", never 401.
 */
package dev.gate.web.security;
