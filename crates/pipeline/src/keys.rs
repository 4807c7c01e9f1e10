//! Signing keys: Ed25519 key pairs for clubs, the aggregator and the organiser.
//!
//! Whoever signs holds the private half in a file of its own (mode 0600, never overwritten); the
//! event's declaration holds only public halves, so nothing anyone can read from the log lets them
//! sign for someone else. A key's id is `k` and the first 12 hex digits of the SHA-256 of its public
//! half; seals and declarations name keys by id.
//!
//! Files are one line of text: `ed25519-private:<64 hex digits>` (the 32-byte secret) or
//! `ed25519-public:<64 hex digits>` (the 32-byte public key), so that one is never taken for the
//! other.

use std::io::Write;
use std::path::Path;

pub use simpairs_events::{PrivateKey, PublicKey, key_id};

use crate::{Error, Result};

const PRIVATE_PREFIX: &str = "ed25519-private:";
const PUBLIC_PREFIX: &str = "ed25519-public:";

/// A fresh key from the operating system's random source.
pub fn generate() -> Result<PrivateKey> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret)
        .map_err(|e| Error::Io(format!("cannot draw a random key: {e}")))?;
    Ok(PrivateKey::from_secret(secret))
}

/// Reads a private key file.
pub fn read_private(path: &Path) -> Result<PrivateKey> {
    let text = read_key_file(path)?;
    let Some(hex_part) = text.strip_prefix(PRIVATE_PREFIX) else {
        return Err(Error::Usage(not_a(path, "private", &text)));
    };
    Ok(PrivateKey::from_secret(key_bytes(path, hex_part)?))
}

/// Writes a private key to a new file readable by its owner only; an existing file is never
/// replaced (it may be the only copy of a key the event was declared with).
pub fn write_private(key: &PrivateKey, path: &Path) -> Result<()> {
    let text = format!("{PRIVATE_PREFIX}{}\n", hex::encode(key.secret()));
    write_new(path, &text, 0o600)
}

/// A public key as text: `ed25519-public:<hex>`.
pub fn public_text(key: &PublicKey) -> String {
    format!("{PUBLIC_PREFIX}{}", hex::encode(key.to_bytes()))
}

/// Parses a public key as text (`ed25519-public:<hex>`, or the bare 64 hex digits), naming
/// `source` in errors.
pub(crate) fn parse_public(text: &str, source: &str) -> Result<PublicKey> {
    let text = text.trim();
    if text.starts_with(PRIVATE_PREFIX) {
        return Err(Error::Usage(format!(
            "{source}: this is a private key; give the public key (simpairs club keygen prints it) and keep the private one with the club"
        )));
    }
    let hex_part = text.strip_prefix(PUBLIC_PREFIX).unwrap_or(text);
    let bytes = hex::decode(hex_part)
        .map_err(|e| Error::Usage(format!("{source}: the public key is not hex: {e}")))?;
    PublicKey::from_bytes(&bytes).map_err(|e| Error::Usage(format!("{source}: {e}")))
}

/// Reads a public key file.
pub fn read_public(path: &Path) -> Result<PublicKey> {
    let text = read_key_file(path)?;
    parse_public(&text, &path.display().to_string())
}

/// Writes a public key to a new file (never replacing one).
pub fn write_public(key: &PublicKey, path: &Path) -> Result<()> {
    write_new(path, &format!("{}\n", public_text(key)), 0o644)
}

fn read_key_file(path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read the key file {}: {e}", path.display())))?;
    Ok(text.trim().to_string())
}

fn not_a(path: &Path, wanted: &str, text: &str) -> String {
    let found = if text.starts_with(PUBLIC_PREFIX) {
        "a public key".to_string()
    } else if !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        "a bare hex key (keys of simpairs before Ed25519 signatures are shared HMAC keys, which \
         every club could read from the log; make a key pair with simpairs club keygen)"
            .to_string()
    } else {
        "something else".to_string()
    };
    format!(
        "{}: expected a {wanted} key ({PRIVATE_PREFIX}...), found {found}",
        path.display()
    )
}

fn key_bytes(path: &Path, hex_part: &str) -> Result<[u8; 32]> {
    let bytes = hex::decode(hex_part.trim())
        .map_err(|e| Error::Usage(format!("{}: the key is not hex: {e}", path.display())))?;
    bytes.try_into().map_err(|b: Vec<u8>| {
        Error::Usage(format!(
            "{}: a key is 32 bytes (64 hex digits), not {}",
            path.display(),
            b.len()
        ))
    })
}

/// Creates `path` with `text`, failing (naming the file) if it exists.
fn write_new(path: &Path, text: &str, mode: u32) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => Error::Usage(format!(
            "{} already exists; simpairs never writes over a key file (it may hold the only copy of a key). Move it away first if you mean to replace it",
            path.display()
        )),
        _ => Error::Io(format!("cannot create {}: {e}", path.display())),
    })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_files_are_never_written_over_and_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys/club.key");
        let key = PrivateKey::from_secret([1; 32]);
        write_private(&key, &path).unwrap();
        let again = write_private(&PrivateKey::from_secret([2; 32]), &path).unwrap_err();
        assert!(again.to_string().contains("never writes over"), "{again}");
        assert_eq!(read_private(&path).unwrap().public(), key.public());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let public = dir.path().join("club.pub");
        write_public(&key.public(), &public).unwrap();
        assert_eq!(read_public(&public).unwrap(), key.public());
        let wrong = read_private(&public).unwrap_err().to_string();
        assert!(wrong.contains("found a public key"), "{wrong}");
        let err = parse_public(&std::fs::read_to_string(&path).unwrap(), "x").unwrap_err();
        assert!(err.to_string().contains("this is a private key"));
        std::fs::write(dir.path().join("old.key"), "ab".repeat(32)).unwrap();
        let old = read_private(&dir.path().join("old.key"))
            .unwrap_err()
            .to_string();
        assert!(old.contains("HMAC"), "{old}");
    }
}
