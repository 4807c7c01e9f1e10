//! The site's stylesheet and script, built into the binary and served under their own path with a
//! digest in the link, so a browser keeps them until they change.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

/// A file served from `/static/`.
pub struct Asset {
    pub name: &'static str,
    pub body: &'static str,
    pub content_type: &'static str,
    digest: LazyLock<String>,
}

impl Asset {
    /// The link to the file, with the start of its digest so that a changed file is fetched anew.
    pub fn url(&self) -> String {
        format!("/static/{}?v={}", self.name, &*self.digest)
    }

    pub fn response(&self) -> Response {
        (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(self.content_type),
                ),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("public, max-age=86400"),
                ),
            ],
            self.body,
        )
            .into_response()
    }
}

fn digest(body: &str) -> String {
    hex::encode(&Sha256::digest(body.as_bytes())[..6])
}

pub(crate) static CSS: Asset = Asset {
    name: "site.css",
    body: include_str!("../assets/site.css"),
    content_type: "text/css; charset=utf-8",
    digest: LazyLock::new(|| digest(include_str!("../assets/site.css"))),
};

pub(crate) static JS: Asset = Asset {
    name: "live.js",
    body: include_str!("../assets/live.js"),
    content_type: "text/javascript; charset=utf-8",
    digest: LazyLock::new(|| digest(include_str!("../assets/live.js"))),
};

/// The asset named `name`.
pub fn find(name: &str) -> Option<&'static Asset> {
    [&CSS, &JS].into_iter().find(|a| a.name == name)
}
