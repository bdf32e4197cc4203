fn main() {
    std::process::exit(ozone_conform::cli::main());
}
