//! `simpairs serve` started on the pipeline's log: how soon it answers, and how soon its rankings
//! page lists the field, as a player opening the site just after a restart would see it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// How long the page is waited for before the measurement fails.
const PATIENCE: Duration = Duration::from_secs(60);
/// How often the page is asked for.
const EVERY: Duration = Duration::from_millis(10);
/// What a row of the rankings' table starts with (`crates/web/src/pages/rankings.rs`).
const RANKING_ROW: &str = "<td class=\"l names\">";

/// From `serve`'s start: its first page (`/rankings`, answered), and that page's first row.
#[derive(Clone, Copy, Debug)]
pub struct FirstPage {
    pub page: Duration,
    pub row: Duration,
}

/// The server, stopped when measured (or when the measurement fails).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `program serve` on the embedded log in `log_dir` with a fresh replay index, and asks
/// for `/rankings` every 10 ms until it lists a pair.
pub fn first_page(program: &Path, log_dir: &Path, event_id: &str) -> anyhow::Result<FirstPage> {
    let index = tempfile::tempdir()?;
    let port = free_port()?;
    let started = Instant::now();
    let mut server = Server(
        Command::new(program)
            .arg("serve")
            .arg("--log")
            .arg(log_dir)
            .args(["--event", event_id, "--no-publish"])
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .arg("--index-dir")
            .arg(index.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot run {} serve", program.display()))?,
    );
    let mut page = None;
    while started.elapsed() < PATIENCE {
        if let Some(status) = server.0.try_wait()? {
            bail!("simpairs serve stopped before it listed the field ({status})");
        }
        if let Some(body) = rankings(port) {
            let at = started.elapsed();
            let page = *page.get_or_insert(at);
            if body.contains(RANKING_ROW) {
                return Ok(FirstPage { page, row: at });
            }
        }
        std::thread::sleep(EVERY);
    }
    bail!(
        "simpairs serve listed no pair on /rankings within {} s",
        PATIENCE.as_secs()
    )
}

/// A port nobody listens on now.
fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The body of `/rankings` when the server answers it with 200 OK.
fn rankings(port: u16) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .write_all(b"GET /rankings HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that answers one request with `response`; its port.
    fn answering(response: &'static str) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request);
            stream.write_all(response.as_bytes()).unwrap();
        });
        port
    }

    #[test]
    fn a_page_is_its_body_when_answered_with_200_only() {
        let ok = answering("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n<td>x</td>");
        assert_eq!(rankings(ok).as_deref(), Some("<td>x</td>"));
        let busy = answering("HTTP/1.1 503 Service Unavailable\r\n\r\nnot yet");
        assert_eq!(rankings(busy), None);
        // Nobody listening: no page yet.
        assert_eq!(rankings(free_port().unwrap()), None);
    }
}
