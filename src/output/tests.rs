use super::*;

#[test]
fn only_a_folder_known_to_hold_outputs_alone_is_exchanged_whole() {
    use std::io::{Error, ErrorKind};
    let entry = |n: &str, file: bool| (n.to_string(), file);
    assert!(holds_only_outputs(Err(Error::from(ErrorKind::NotFound))));
    assert!(!holds_only_outputs(Err(Error::from(
        ErrorKind::PermissionDenied
    ))));
    assert!(holds_only_outputs(Ok(vec![])));
    assert!(holds_only_outputs(Ok(vec![
        entry("summary.json", true),
        entry("links.csv", true)
    ])));
    assert!(!holds_only_outputs(Ok(vec![
        entry("summary.json", true),
        entry("notes.txt", true)
    ])));
    assert!(!holds_only_outputs(Ok(vec![entry("links.csv", false)])));
}

#[test]
fn a_write_replaces_the_file_and_leaves_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("summary.json");
    std::fs::write(&target, "old").unwrap();
    write_atomic(&target, b"new").unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file is left");
}

#[test]
fn a_failed_write_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("no_such_dir").join("x.json");
    assert!(write_atomic(&target, b"new").is_err());
    assert!(!target.exists());
}
