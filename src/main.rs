//! The lab's server: `cargo leptos serve` (or the release binary from the project root).
//! Settings: LEPTOS_SITE_ADDR (default 127.0.0.1:3000; port 0 takes a free port, and the line
//! printed on stdout says which), LAB_DATA_DIR (default ./data) and the limits in `server::config`.

#[tokio::main]
async fn main() {
    use leptos::prelude::get_configuration;
    use pocketpay_lab::server::{config::Config, sandboxes::Sandboxes, web};
    use tracing_subscriber::EnvFilter;

    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")),
        )
        .init();

    let conf = get_configuration(None).expect("Cargo.toml's [package.metadata.leptos] is readable");
    let mut options = conf.leptos_options;
    // A build with hashed file names (`hash-files`, Cargo.toml) leaves the names in a file
    // beside this binary: the pages then point at those names, which browsers keep for good.
    options.hash_files = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&*options.hash_file)))
        .is_some_and(|names| names.exists());
    let addr = options.site_addr;
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bad setting: {e}");
            std::process::exit(2);
        }
    };
    let sandboxes = match Sandboxes::start(config.clone()).await {
        Ok(sandboxes) => sandboxes,
        Err(e) => {
            eprintln!(
                "cannot use the data folder {}: {e}",
                config.data_dir.display()
            );
            std::process::exit(2);
        }
    };
    let app = web::app(options, sandboxes.clone());
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot listen on {addr}: {e}");
            std::process::exit(2);
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    tracing::info!(data = %config.data_dir.display(), "PocketPay Idempotency Lab listening on http://{local}/lab");
    println!("PocketPay Idempotency Lab: http://{local}/lab");

    let stopping = sandboxes.clone();
    let served = axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            tracing::info!("stopping: ending streams and saving sandboxes");
            // End the event streams first, or graceful shutdown would wait for them forever.
            stopping.shutdown().await;
        })
        .await;
    sandboxes.shutdown().await;
    if let Err(e) = served {
        eprintln!("server error: {e}");
        std::process::exit(1);
    }
    tracing::info!("stopped");
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
