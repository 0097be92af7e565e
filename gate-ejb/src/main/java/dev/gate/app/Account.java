package dev.gate.app;

import java.io.Serializable;
import java.util.Set;

/** An HTTP account: its name (for a caller, the program of its calls), its PBKDF2 hash and its roles. */
public record Account(String name, String passwordHash, Set<String> roles) implements Serializable {
}
