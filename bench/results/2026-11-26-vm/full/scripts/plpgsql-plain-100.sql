SELECT plain(100, :client_id);
