//! The `arena` command: glue over the library.

fn main() {
    std::process::exit(arena::cli::main());
}
