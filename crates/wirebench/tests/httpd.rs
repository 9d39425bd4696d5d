//! Our HTTP/1.1 and HTTP/2 clients against Apache httpd's mod_ssl and mod_http2 from Debian (a
//! second server no one here wrote, after nginx): two sites on one TLS port by name, a small and
//! a large static file, whole, over both protocols; the header that opens a location. Needs
//! apache2 (`make setup` installs it).

use std::path::Path;
use std::process::Output;

mod common;
use common::{certificates, start_server, wirebench, Server};

const SMALL: &str = "served by httpd\n";
const BIG: usize = (1 << 20) + 13;

struct Httpd {
    /// Stopped when the test ends, before its directory goes.
    _child: Server,
    port: u16,
    dir: tempfile::TempDir,
}

fn start() -> Httpd {
    let httpd = ["/usr/sbin/apache2", "/usr/sbin/httpd"].into_iter().find(|p| Path::new(p).exists());
    let httpd = httpd.expect("Apache httpd is not installed: run `make setup` (it installs apache2 from Debian)");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    certificates(dir.path(), &["site-a.test", "site-b.test"]);
    for (site, body) in [("site-a.test", SMALL), ("site-b.test", "the other one\n")] {
        std::fs::create_dir(dir.path().join(site)).unwrap();
        std::fs::write(dir.path().join(site).join("small.txt"), body).unwrap();
        std::fs::write(dir.path().join(site).join("guarded.txt"), "token\n").unwrap();
    }
    let big: Vec<u8> = (0..BIG).map(|i| (i * 13 % 251) as u8).collect();
    std::fs::write(dir.path().join("site-a.test/big.bin"), big).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let modules = "/usr/lib/apache2/modules";
    let vhost = |name: &str| {
        format!(
            "<VirtualHost 127.0.0.1:{port}>
               ServerName {name}
               DocumentRoot {d}/{name}
               SSLEngine on
               SSLCertificateFile {d}/{name}.pem
               SSLCertificateKeyFile {d}/{name}.key
               <Location /guarded.txt>
                 <If \"%{{HTTP:X-Token}} != 't'\">
                   Require all denied
                 </If>
               </Location>
             </VirtualHost>\n"
        )
    };
    let conf = format!(
        "ServerRoot {d}
         PidFile {d}/httpd.pid
         ErrorLog {d}/error.log
         LoadModule mpm_event_module {modules}/mod_mpm_event.so
         LoadModule authz_core_module {modules}/mod_authz_core.so
         LoadModule mime_module {modules}/mod_mime.so
         LoadModule socache_shmcb_module {modules}/mod_socache_shmcb.so
         LoadModule ssl_module {modules}/mod_ssl.so
         LoadModule http2_module {modules}/mod_http2.so
         TypesConfig /etc/mime.types
         Listen 127.0.0.1:{port}
         Protocols h2 http/1.1
         SSLSessionCache shmcb:{d}/ssl_cache(512000)
         <Directory {d}>
           Require all granted
         </Directory>
         {a}{b}",
        a = vhost("site-a.test"),
        b = vhost("site-b.test"),
    );
    std::fs::write(dir.path().join("httpd.conf"), conf).unwrap();
    let (conf, log) = (format!("{d}/httpd.conf"), dir.path().join("error.log"));
    let child = start_server("Apache httpd", httpd, &["-f", &conf, "-DFOREGROUND"], port, &log);
    Httpd { _child: child, port, dir }
}

fn load(server: &Httpd, name: &str, path: &str, extra: &[&str]) -> Output {
    let (port, ca) = (server.port, server.dir.path().join("ca.pem").display().to_string());
    let url = format!("https://{name}:{port}{path}");
    let resolve = format!("{name}:{port}:127.0.0.1");
    let mut args = vec!["load", &url, "--resolve", &resolve, "--cacert", &ca, "-c", "2", "-n", "30", "--json"];
    args.extend_from_slice(extra);
    wirebench(&args)
}

fn ok(out: &Output) {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["requests"].as_u64(), r["errors"].as_u64()), (Some(30), Some(0)), "{r}");
}

#[test]
fn our_clients_fetch_httpd_sites_by_name_whole_over_h1_and_h2() {
    let server = start();
    let (small, big) = (SMALL.len().to_string(), BIG.to_string());
    for driver in [&["--driver", "http1"][..], &["--driver", "http2", "-m", "8"]] {
        let mut args = driver.to_vec();
        args.extend(["--expect-bytes", &small]);
        ok(&load(&server, "site-a.test", "/small.txt", &args));
        let mut args = driver.to_vec();
        args.extend(["--expect-bytes", &big]);
        ok(&load(&server, "site-a.test", "/big.bin", &args));
        // site-b's file has another length: an answer from site-a would be an error.
        let mut args = driver.to_vec();
        args.extend(["--expect-bytes", "14"]);
        ok(&load(&server, "site-b.test", "/small.txt", &args));
    }
    let denied = load(&server, "site-a.test", "/guarded.txt", &[]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&denied.stderr).contains("status 403"),
        "{}",
        String::from_utf8_lossy(&denied.stderr)
    );
    ok(&load(&server, "site-a.test", "/guarded.txt", &["-H", "X-Token: t", "--driver", "http2"]));
}
