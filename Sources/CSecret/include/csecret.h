#ifndef CSECRET_H
#define CSECRET_H

// The freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) through libsecret, loaded
// on first use (dlopen): only a node.conf with TokenStore=keyring needs it, and with GLib and
// GIO it is milliseconds of loading that every other start would pay.
//
// No GLib type crosses this header: items are found by the attributes application, node and
// kind, and every call runs on a thread of its own with a deadline. A locked collection is
// reported, never unlocked: an unlock prompt would keep a timer's run waiting for a person.

enum {
    CSECRET_OK = 0,
    CSECRET_NOT_FOUND = 1,   // the keyring is open and holds no such item
    CSECRET_LOCKED = 2,      // the item or the default collection is locked
    CSECRET_UNAVAILABLE = 3, // no libsecret, no session bus, or no Secret Service on it
    CSECRET_TIMEOUT = 4,     // the service did not answer before the deadline
    CSECRET_FAILED = 5,      // the service answered with an error
};

/// Looks up the secret of (application=hearthloom-ingest, node, kind). On CSECRET_OK `*secret`
/// is a malloc'd string for csecret_free; otherwise `*message` may say why (free with csecret_free).
int csecret_lookup(const char *node, const char *kind, int timeout_ms, char **secret, char **message);

/// Stores (or replaces) the secret of (application=hearthloom-ingest, node, kind) in the default
/// collection, labelled `label`. It refuses a locked collection rather than asking to unlock it.
int csecret_store(const char *node, const char *kind, const char *label, const char *secret, int timeout_ms, char **message);

/// Removes every item of (application=hearthloom-ingest, node, kind); CSECRET_OK also when there was none.
int csecret_clear(const char *node, const char *kind, int timeout_ms, char **message);

/// Overwrites and frees a string these calls returned.
void csecret_free(char *text);

#endif
