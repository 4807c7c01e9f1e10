//! `simpairs bench`: placeholder replaced below.
#[derive(clap::Args, Debug)]
pub struct Args {}
pub fn run(_: Args) -> anyhow::Result<()> {
    anyhow::bail!("not yet")
}
