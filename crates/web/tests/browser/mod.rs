//! Headless Chromium through WebDriver (Debian's `chromium` and `chromium-driver`): starting the
//! driver, a session at a given window size, and what the tests need of a page (its width,
//! axe-core's findings, a screenshot of the whole page).
//!
//! When Chromium, ChromeDriver or axe-core are missing the tests say so loudly and pass over,
//! except under CI (`CI` set), where they fail: CI installs them (`.ci/run`).

#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::{Value, json};

/// What the browser tests need on this machine.
pub struct Tools {
    pub chromium: PathBuf,
    pub chromedriver: PathBuf,
    pub axe: PathBuf,
}

fn from_env(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from)
}

/// The tools, or `None` after saying loudly what is missing (a failure under CI).
pub fn tools() -> Option<Tools> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tools = Tools {
        chromium: from_env("SIMPAIRS_CHROMIUM", "/usr/bin/chromium"),
        chromedriver: from_env("SIMPAIRS_CHROMEDRIVER", "/usr/bin/chromedriver"),
        axe: here.join("tests/browser/node_modules/axe-core/axe.min.js"),
    };
    let missing: Vec<String> = [
        (&tools.chromium, "apt-get install chromium"),
        (&tools.chromedriver, "apt-get install chromium-driver"),
        (&tools.axe, "npm ci --prefix crates/web/tests/browser"),
    ]
    .into_iter()
    .filter(|(p, _)| !p.exists())
    .map(|(p, fix)| format!("{} ({fix})", p.display()))
    .collect();
    if missing.is_empty() {
        return Some(tools);
    }
    let message = format!("BROWSER TESTS NOT RUN: missing {}", missing.join(", "));
    if std::env::var_os("CI").is_some() {
        panic!("{message}; CI must run them");
    }
    eprintln!("\n*** {message} ***\n");
    None
}

/// A running ChromeDriver, stopped when dropped.
pub struct Driver {
    child: Child,
    pub url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The driver and the browsers it started are one process group: a test that fails
        // before closing its session leaves no Chromium behind.
        let _ = Command::new("kill")
            .arg("--")
            .arg(format!("-{}", self.child.id()))
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on loopback")
}

pub fn start_driver(tools: &Tools) -> Driver {
    let port = free_port();
    let child = Command::new(&tools.chromedriver)
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    driver
}

/// A headless Chromium session with a window `width` x `height`.
pub async fn session(
    tools: &Tools,
    driver: &Driver,
    profile: &Path,
    width: u32,
    height: u32,
) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
    ]
    .into_iter()
    .map(String::from)
    .chain([
        format!("--user-data-dir={}", profile.display()),
        format!("--window-size={width},{height}"),
    ])
    .collect::<Vec<_>>();
    let caps = json!({
        "goog:chromeOptions": { "binary": tools.chromium, "args": args },
        "pageLoadStrategy": "normal",
    });
    let caps = match caps {
        Value::Object(m) => m,
        _ => unreachable!("a JSON object"),
    };
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a Chromium session");
    client
        .set_window_size(width, height)
        .await
        .expect("window size");
    client
}

/// The page's width beyond the window's: 0 when nothing scrolls sideways.
pub async fn overflow(client: &Client) -> i64 {
    let v = client
        .execute(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth;",
            vec![],
        )
        .await
        .expect("page width");
    v.as_i64().unwrap_or(i64::MAX)
}

/// axe-core's serious and critical violations on the page: (rule, impact, first target).
pub async fn axe(client: &Client, axe_source: &str) -> Vec<String> {
    client
        .execute(axe_source, vec![])
        .await
        .expect("axe-core loads");
    let found = client
        .execute_async(
            "const done = arguments[arguments.length - 1];\
             axe.run(document, { resultTypes: ['violations'] }).then(r => done(r.violations.map(v => \
               ({ id: v.id, impact: v.impact, help: v.help, target: v.nodes.map(n => n.target.join(' ')).slice(0, 3) }))))\
             .catch(e => done([{ id: 'axe-error', impact: 'critical', help: String(e), target: [] }]));",
            vec![],
        )
        .await
        .expect("axe-core runs");
    found
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
        .map(|v| {
            format!(
                "{} ({}): {} at {}",
                v["id"], v["impact"], v["help"], v["target"]
            )
        })
        .collect()
}

/// A screenshot of the whole page at `width`, written to `target/browser-screenshots/{name}-{width}.png`.
pub async fn screenshot(client: &Client, name: &str, width: u32) -> PathBuf {
    let height = client
        .execute(
            "return Math.min(document.documentElement.scrollHeight, 8000);",
            vec![],
        )
        .await
        .ok()
        .and_then(|v| v.as_u64())
        .unwrap_or(900) as u32;
    client
        .set_window_size(width, height.max(600))
        .await
        .expect("window size");
    let png = client.screenshot().await.expect("a screenshot");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot directory");
    let path = dir.join(format!("{name}-{width}.png"));
    std::fs::write(&path, png).expect("screenshot written");
    path
}

/// Waits until `script` (a function body returning a boolean) is true, up to `limit`.
pub async fn wait_until(client: &Client, script: &str, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if client
            .execute(script, vec![])
            .await
            .ok()
            .and_then(|v| v.as_bool())
            == Some(true)
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}
