/**
 * Who may call: HTTP Basic (Jakarta Security) over the gate's own accounts in PostgreSQL, PBKDF2-hashed. Roles:
 * {@code caller} (its name is the program of its calls), {@code operator}, {@code viewer}.
 */
package dev.gate.web.security;
