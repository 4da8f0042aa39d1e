//! The inspection dashboard: three static files compiled into the Worker and served
//! at `/dashboard`. They hold no data: the page asks for the admin token, keeps it in the
//! tab's sessionStorage, and calls the `/api` routes with it. A strict CSP allows only these
//! files and same-origin requests.

/// The files, by request path: content type and body.
pub fn asset(path: &str) -> Option<(&'static str, &'static str)> {
    match path {
        "/dashboard" => Some(("text/html; charset=utf-8", include_str!("index.html"))),
        "/dashboard/app.js" => Some(("text/javascript; charset=utf-8", include_str!("app.js"))),
        "/dashboard/app.css" => Some(("text/css; charset=utf-8", include_str!("app.css"))),
        _ => None,
    }
}

/// Headers of every dashboard response: no framing, no referrer, nothing but same-origin.
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
         img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("referrer-policy", "no-referrer"),
    ("x-content-type-options", "nosniff"),
    ("cache-control", "no-cache"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_loads_only_its_own_files_and_never_puts_data_in_html() {
        let (kind, html) = asset("/dashboard").unwrap();
        assert!(kind.starts_with("text/html"));
        assert!(html.contains("src=\"/dashboard/app.js\""));
        assert!(html.contains("href=\"/dashboard/app.css\""));
        let (_, js) = asset("/dashboard/app.js").unwrap();
        assert!(
            !js.contains("innerHTML"),
            "data goes in with textContent only"
        );
        assert!(js.contains("sessionStorage"));
        assert!(!js.contains("localStorage.setItem(TOKEN_KEY"));
        assert!(asset("/dashboard/other").is_none());
    }
}
