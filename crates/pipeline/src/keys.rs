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

use crate::{Error, FoundKey, KeyError, Result, io};

const PRIVATE_PREFIX: &str = "ed25519-private:";
const PUBLIC_PREFIX: &str = "ed25519-public:";

/// A fresh key from the operating system's random source.
pub fn generate() -> Result<PrivateKey> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(Error::Random)?;
    Ok(PrivateKey::from_secret(secret))
}

/// Reads a private key file.
pub fn read_private(path: &Path) -> Result<PrivateKey> {
    let text = read_key_file(path)?;
    let Some(hex_part) = text.strip_prefix(PRIVATE_PREFIX) else {
        return Err(not_a(path, "private", &text).into());
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
        return Err(KeyError::PrivateForPublic {
            source_name: source.to_string(),
        }
        .into());
    }
    let hex_part = text.strip_prefix(PUBLIC_PREFIX).unwrap_or(text);
    let bytes = hex::decode(hex_part).map_err(|e| KeyError::PublicNotHex {
        source_name: source.to_string(),
        source: e,
    })?;
    PublicKey::from_bytes(&bytes).map_err(|e| {
        KeyError::PublicInvalid {
            source_name: source.to_string(),
            source: e,
        }
        .into()
    })
}

/// A public key given on the command line (`source` names where): its text, as `club keygen`
/// prints it and a club sends it (`ed25519-public:<64 hex digits>`), or the file holding it.
pub fn public_given(given: &str, source: &str) -> Result<PublicKey> {
    let text = given.trim();
    if text.starts_with(PUBLIC_PREFIX) || text.starts_with(PRIVATE_PREFIX) {
        return parse_public(text, source);
    }
    read_public(Path::new(given))
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
    let text = std::fs::read_to_string(path).map_err(io("read the key file", path))?;
    Ok(text.trim().to_string())
}

fn not_a(path: &Path, wanted: &'static str, text: &str) -> KeyError {
    let found = if text.starts_with(PUBLIC_PREFIX) {
        FoundKey::Public
    } else if !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        FoundKey::BareHex
    } else {
        FoundKey::Other
    };
    KeyError::WrongKind {
        path: path.to_path_buf(),
        wanted,
        found,
    }
}

fn key_bytes(path: &Path, hex_part: &str) -> Result<[u8; 32]> {
    let bytes = hex::decode(hex_part.trim()).map_err(|e| KeyError::NotHex {
        path: path.to_path_buf(),
        source: e,
    })?;
    bytes.try_into().map_err(|b: Vec<u8>| {
        KeyError::Length {
            path: path.to_path_buf(),
            len: b.len(),
        }
        .into()
    })
}

/// Creates `path` with `text`, failing (naming the file) if it exists.
fn write_new(path: &Path, text: &str, mode: u32) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => KeyError::FileExists {
            path: path.to_path_buf(),
        }
        .into(),
        _ => io("create", path)(e),
    })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(io("write", path))
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
