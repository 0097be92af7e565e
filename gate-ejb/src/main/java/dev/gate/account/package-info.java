/** Who may call over HTTP: an account's name (for a caller, the program of its calls), its PBKDF2 hash and roles. */
package dev.gate.account;
